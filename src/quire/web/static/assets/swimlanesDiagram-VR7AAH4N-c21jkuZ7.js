import{c as r,s as e}from"./flowDiagram-HODETNUW-Djq1Xhtf.js";import{_ as a}from"./mermaid-B0mwMvFe.js";import"./chunk-5VM5RSS4-CE1URbqX.js";import"./chunk-XXDRQBXY-C-kuqJI3.js";import"./chunk-POPQ4Y6H-BWJpBz17.js";import"./chunk-F27PBJKO-DF5X5Z5j.js";import"./channel-DAySH8oM.js";import"./index-Ye9qntRu.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
