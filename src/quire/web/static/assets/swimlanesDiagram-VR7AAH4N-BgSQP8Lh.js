import{c as r,s as e}from"./flowDiagram-HODETNUW-DpjmW4Gv.js";import{_ as a}from"./mermaid-CcoFZVv6.js";import"./chunk-5VM5RSS4-CbXTKX9_.js";import"./chunk-XXDRQBXY-BQ6hA44J.js";import"./chunk-POPQ4Y6H-CIxhAIdE.js";import"./chunk-F27PBJKO-jijhV8Zl.js";import"./channel-ZebCgqUf.js";import"./index-r0f7WEDm.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
