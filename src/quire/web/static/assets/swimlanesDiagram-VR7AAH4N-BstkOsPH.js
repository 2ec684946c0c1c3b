import{c as r,s as e}from"./flowDiagram-HODETNUW-Bj6QViGo.js";import{_ as a}from"./mermaid-Dxap92K7.js";import"./chunk-5VM5RSS4-CQzC2pLj.js";import"./chunk-XXDRQBXY-D-v7MSbe.js";import"./chunk-POPQ4Y6H-w_3yJ4vw.js";import"./chunk-F27PBJKO-DUGGtCu5.js";import"./channel-DV5RWrlD.js";import"./index-JPSAUguu.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
