import{c as r,s as e}from"./flowDiagram-HODETNUW-BD9sqn8a.js";import{_ as a}from"./mermaid-83TuaPTs.js";import"./chunk-5VM5RSS4-B3A0UZeZ.js";import"./chunk-XXDRQBXY-CJqDCwEQ.js";import"./chunk-POPQ4Y6H-CbadoUgq.js";import"./chunk-F27PBJKO-CWyiIFE1.js";import"./channel-UBa_J2gY.js";import"./index-Deq-KWAS.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
