import{c as r,s as e}from"./flowDiagram-HODETNUW-BZgvgIEO.js";import{_ as a}from"./mermaid-CLAZexy_.js";import"./chunk-5VM5RSS4-B-zB9gb1.js";import"./chunk-XXDRQBXY-BJl6Szqz.js";import"./chunk-POPQ4Y6H-BcRU9Gl4.js";import"./chunk-F27PBJKO-Dpadvvwb.js";import"./channel-DB1_VpLI.js";import"./index-CWbtLo6-.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
