import{c as r,s as e}from"./flowDiagram-HODETNUW-AsInR9OY.js";import{_ as a}from"./mermaid-DSlXDyO3.js";import"./chunk-5VM5RSS4-D5s8C-Du.js";import"./chunk-XXDRQBXY-ChDE1sDj.js";import"./chunk-POPQ4Y6H-CM0-K8LI.js";import"./chunk-F27PBJKO-BA5wIqnY.js";import"./channel-D7Hw-Ru1.js";import"./index-CAmaRmRZ.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
