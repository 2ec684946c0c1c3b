import{c as r,s as e}from"./flowDiagram-HODETNUW-CJTcgUka.js";import{_ as a}from"./mermaid-CduX_dU3.js";import"./chunk-5VM5RSS4-Wel1E9P8.js";import"./chunk-XXDRQBXY-DIyGbm-U.js";import"./chunk-POPQ4Y6H-B4oj2AYe.js";import"./chunk-F27PBJKO-B_2pYAAW.js";import"./channel-CWwEK7QR.js";import"./index-BFIbVegt.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
