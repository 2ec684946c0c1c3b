import{c as r,s as e}from"./flowDiagram-HODETNUW-CAjp4bhc.js";import{_ as a}from"./mermaid-DEDwf23v.js";import"./chunk-5VM5RSS4-D-R-6We0.js";import"./chunk-XXDRQBXY-CUybM9sC.js";import"./chunk-POPQ4Y6H-B1b6sFjz.js";import"./chunk-F27PBJKO-Itkx5jvn.js";import"./channel-CWxF_lQX.js";import"./index-B24P3Ik1.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
