import{c as r,s as e}from"./flowDiagram-HODETNUW-Bf4wSHEM.js";import{_ as a}from"./mermaid-DPf7VicX.js";import"./chunk-5VM5RSS4-CICRULKU.js";import"./chunk-XXDRQBXY-DbAo6Ydr.js";import"./chunk-POPQ4Y6H-DYqviUwS.js";import"./chunk-F27PBJKO-cvNr8at_.js";import"./channel-D_FuQ2zs.js";import"./index-CHKAiH4B.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
