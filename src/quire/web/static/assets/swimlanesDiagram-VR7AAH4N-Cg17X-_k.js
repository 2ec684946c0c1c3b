import{c as r,s as e}from"./flowDiagram-HODETNUW-Bc8poX_B.js";import{_ as a}from"./mermaid-DcKarcx9.js";import"./chunk-5VM5RSS4-BwIBEAVy.js";import"./chunk-XXDRQBXY-DgcLH-x2.js";import"./chunk-POPQ4Y6H-BkOKwKYW.js";import"./chunk-F27PBJKO-BSENKt5J.js";import"./channel-CKGlzdVy.js";import"./index-Ce4Ofpc2.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
