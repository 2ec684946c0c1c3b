import{c as r,s as e}from"./flowDiagram-HODETNUW-DxcTULwE.js";import{_ as a}from"./mermaid-DByLv-QR.js";import"./chunk-5VM5RSS4-BQomyZ-T.js";import"./chunk-XXDRQBXY-D_80y5V4.js";import"./chunk-POPQ4Y6H-BiQnfawO.js";import"./chunk-F27PBJKO-BBYTNJTO.js";import"./channel-BCAAgz8X.js";import"./index-C6l8yw9b.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
