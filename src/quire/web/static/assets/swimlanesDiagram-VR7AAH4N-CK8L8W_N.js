import{c as r,s as e}from"./flowDiagram-HODETNUW-CfHQCyIw.js";import{_ as a}from"./mermaid-mfznjDb5.js";import"./chunk-5VM5RSS4-B0LbtsdA.js";import"./chunk-XXDRQBXY-Bq2lr1WY.js";import"./chunk-POPQ4Y6H-DTVO3vsF.js";import"./chunk-F27PBJKO-9U_JXDT3.js";import"./channel-Dhi1lWH1.js";import"./index-Cj4Fc6Rq.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
