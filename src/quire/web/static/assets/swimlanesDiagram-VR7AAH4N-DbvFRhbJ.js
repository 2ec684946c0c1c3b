import{c as r,s as e}from"./flowDiagram-HODETNUW-DD9L8tGH.js";import{_ as a}from"./mermaid-I7cF_g1Z.js";import"./chunk-5VM5RSS4-CevUEqPF.js";import"./chunk-XXDRQBXY-OgM3ltUP.js";import"./chunk-POPQ4Y6H-Co3hSTyN.js";import"./chunk-F27PBJKO-DonU1fsV.js";import"./channel--4-cGKcZ.js";import"./index-WxGereFJ.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
