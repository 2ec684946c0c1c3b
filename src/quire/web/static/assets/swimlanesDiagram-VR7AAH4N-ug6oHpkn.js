import{c as r,s as e}from"./flowDiagram-HODETNUW-D7_8eehg.js";import{_ as a}from"./mermaid-DbfPSl6u.js";import"./chunk-5VM5RSS4-C0H8mTeX.js";import"./chunk-XXDRQBXY-Dx4IxtT2.js";import"./chunk-POPQ4Y6H-CUurPtIJ.js";import"./chunk-F27PBJKO-063E5KR6.js";import"./channel-CKcBnas5.js";import"./index-hNHN33l6.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
