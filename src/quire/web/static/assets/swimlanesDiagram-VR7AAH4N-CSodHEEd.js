import{c as r,s as e}from"./flowDiagram-HODETNUW-EHzhE_Ip.js";import{_ as a}from"./mermaid-BVYddFTX.js";import"./chunk-5VM5RSS4-CCdzI2Fi.js";import"./chunk-XXDRQBXY-Cz3jswJg.js";import"./chunk-POPQ4Y6H-r3JkIP_u.js";import"./chunk-F27PBJKO-CtI0X1Ow.js";import"./channel-B04gmK-c.js";import"./index-B5SwFWGM.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
