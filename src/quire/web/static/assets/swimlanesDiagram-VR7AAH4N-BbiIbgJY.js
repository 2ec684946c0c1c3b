import{c as r,s as e}from"./flowDiagram-HODETNUW-DBuD0h8t.js";import{_ as a}from"./mermaid-CbGIwrP_.js";import"./chunk-5VM5RSS4-CDW9VoVS.js";import"./chunk-XXDRQBXY-DFSb2J89.js";import"./chunk-POPQ4Y6H-VCydKYj_.js";import"./chunk-F27PBJKO-DX9qWZ9R.js";import"./channel-CNJRjKaS.js";import"./index-BJTKpbJb.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
