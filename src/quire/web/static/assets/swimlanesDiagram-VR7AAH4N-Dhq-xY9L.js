import{c as r,s as e}from"./flowDiagram-HODETNUW-B6Oace_k.js";import{_ as a}from"./mermaid-NA3qAyfX.js";import"./chunk-5VM5RSS4-DfZ3SXho.js";import"./chunk-XXDRQBXY-u9KPWC7g.js";import"./chunk-POPQ4Y6H-jdX_ixME.js";import"./chunk-F27PBJKO-C5LbRAjN.js";import"./channel-D3JCr2wK.js";import"./index-CQjexQMO.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
