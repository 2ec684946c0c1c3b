import{c as r,s as e}from"./flowDiagram-HODETNUW-ZIfB_ikK.js";import{_ as a}from"./mermaid-C8-9oeZs.js";import"./chunk-5VM5RSS4-BvZOmE7n.js";import"./chunk-XXDRQBXY-Bm20is1Q.js";import"./chunk-POPQ4Y6H-Cxf0O_6U.js";import"./chunk-F27PBJKO-BM7C3CLd.js";import"./channel-_IJ-2Qve.js";import"./index-CFDLbxc_.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
