import{c as r,s as e}from"./flowDiagram-HODETNUW-D-cgQg0f.js";import{_ as a}from"./mermaid-XKMLaTv3.js";import"./chunk-5VM5RSS4-CgkfyAx5.js";import"./chunk-XXDRQBXY-VsBbPr9G.js";import"./chunk-POPQ4Y6H-Bf5moNpA.js";import"./chunk-F27PBJKO--XPXaOFW.js";import"./channel-Dnt0NBjA.js";import"./index-D1pGIH3D.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
