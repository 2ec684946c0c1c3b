import{c as r,s as e}from"./flowDiagram-HODETNUW-5CQ0b-3O.js";import{_ as a}from"./mermaid-ByBANB4S.js";import"./chunk-5VM5RSS4-wfToA5ec.js";import"./chunk-XXDRQBXY-CaBD24JN.js";import"./chunk-POPQ4Y6H-CjbjFUPj.js";import"./chunk-F27PBJKO-Dn_3H2Kv.js";import"./channel-BgVuLWju.js";import"./index-CmFqPFP1.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
