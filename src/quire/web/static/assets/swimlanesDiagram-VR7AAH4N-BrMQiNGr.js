import{c as r,s as e}from"./flowDiagram-HODETNUW-CrwMud0r.js";import{_ as a}from"./mermaid-Bp60Nqdc.js";import"./chunk-5VM5RSS4-BhyLXBP5.js";import"./chunk-XXDRQBXY-RfnVVIJn.js";import"./chunk-POPQ4Y6H-DFXlQ6vX.js";import"./chunk-F27PBJKO-DdVPEnnB.js";import"./channel-B7yC3qoQ.js";import"./index-X3FH1k26.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
