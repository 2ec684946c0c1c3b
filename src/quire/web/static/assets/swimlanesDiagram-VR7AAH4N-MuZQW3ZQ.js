import{c as r,s as e}from"./flowDiagram-HODETNUW-D3cfGlhG.js";import{_ as a}from"./mermaid-rB3MzYHB.js";import"./chunk-5VM5RSS4-Ckwsgel1.js";import"./chunk-XXDRQBXY-DasfOU0-.js";import"./chunk-POPQ4Y6H-D4_AlxhO.js";import"./chunk-F27PBJKO-SQPDBjVc.js";import"./channel-BobKZdPk.js";import"./index-B786xSiL.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
