import{c as r,s as e}from"./flowDiagram-HODETNUW-DqeVwTQ4.js";import{_ as a}from"./mermaid-vlLuMD5W.js";import"./chunk-5VM5RSS4-BPtrccyH.js";import"./chunk-XXDRQBXY-D9CPri5A.js";import"./chunk-POPQ4Y6H-DbZitwHn.js";import"./chunk-F27PBJKO-CpenauZn.js";import"./channel-BPRFD56Q.js";import"./index-CZW68rCT.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
