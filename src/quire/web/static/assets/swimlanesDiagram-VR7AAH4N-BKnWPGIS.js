import{c as r,s as e}from"./flowDiagram-HODETNUW-BgDw18ir.js";import{_ as a}from"./mermaid-CK--LW3Y.js";import"./chunk-5VM5RSS4-BZ_ETHtc.js";import"./chunk-XXDRQBXY-DG9dgKCw.js";import"./chunk-POPQ4Y6H-EtPieGsN.js";import"./chunk-F27PBJKO-BL5NS2bu.js";import"./channel-BckdMo5P.js";import"./index-Bh4ct9Ww.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
