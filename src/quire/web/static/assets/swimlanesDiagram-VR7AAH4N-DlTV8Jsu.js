import{c as r,s as e}from"./flowDiagram-HODETNUW-onHsvdO4.js";import{_ as a}from"./mermaid-BmAKUQ1S.js";import"./chunk-5VM5RSS4-D9yTkvRB.js";import"./chunk-XXDRQBXY-DEKJz2rF.js";import"./chunk-POPQ4Y6H-CV7bJ75p.js";import"./chunk-F27PBJKO-BOriwyuv.js";import"./channel-BkZGxwzT.js";import"./index-QNKCN2MU.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
