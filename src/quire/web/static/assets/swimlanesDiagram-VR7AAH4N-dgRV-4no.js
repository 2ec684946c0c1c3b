import{c as r,s as e}from"./flowDiagram-HODETNUW-Dpa58q0Y.js";import{_ as a}from"./mermaid-CF1PQsMa.js";import"./chunk-5VM5RSS4-BB4KIy9P.js";import"./chunk-XXDRQBXY-DWiKxi8j.js";import"./chunk-POPQ4Y6H-BjRSKr_J.js";import"./chunk-F27PBJKO-0F1drdtR.js";import"./channel-PcgrMnWX.js";import"./index-CdzSPqCz.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),s=o,n=r({defaultLayout:"swimlane",styles:s});export{n as diagram};
