import{c as r,s as e}from"./flowDiagram-HODETNUW-CUWg1MpU.js";import{_ as a}from"./mermaid-DcpmOw2W.js";import"./chunk-5VM5RSS4-uYv2rVge.js";import"./chunk-XXDRQBXY-C_kC0NT-.js";import"./chunk-POPQ4Y6H-Cemq1SNU.js";import"./chunk-F27PBJKO-Bc8mYrVY.js";import"./channel-CUNWONOu.js";import"./index-vjkFI2po.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
