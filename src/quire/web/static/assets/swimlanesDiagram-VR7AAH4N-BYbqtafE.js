import{c as r,s as e}from"./flowDiagram-HODETNUW-BGw5i9ok.js";import{_ as a}from"./mermaid-kTxaA3qZ.js";import"./chunk-5VM5RSS4-D9n5GvXR.js";import"./chunk-XXDRQBXY-CeeU6jb0.js";import"./chunk-POPQ4Y6H-DOudjeP8.js";import"./chunk-F27PBJKO-Bjh9_FB6.js";import"./channel-CGne6jbc.js";import"./index-mbSLWJJP.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
