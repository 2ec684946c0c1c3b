import{c as r,s as e}from"./flowDiagram-HODETNUW-CAxjpJ4d.js";import{_ as a}from"./mermaid-diFqMbs6.js";import"./chunk-5VM5RSS4-DbFiWGVr.js";import"./chunk-XXDRQBXY-Bm3jFY8F.js";import"./chunk-POPQ4Y6H-DchJgxQZ.js";import"./chunk-F27PBJKO-Bqa6GRwR.js";import"./channel-BZEbhDs1.js";import"./index-BP2XSJia.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
