import{c as r,s as e}from"./flowDiagram-HODETNUW-BSlxFm_1.js";import{_ as a}from"./mermaid-0IhrfyKF.js";import"./chunk-5VM5RSS4-DtMNtw9G.js";import"./chunk-XXDRQBXY-D63FGUv2.js";import"./chunk-POPQ4Y6H-BRWWnina.js";import"./chunk-F27PBJKO-BULysWZi.js";import"./channel-v_QAROM7.js";import"./index-BDpW4wUT.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
