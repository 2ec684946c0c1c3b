import{c as r,s as e}from"./flowDiagram-HODETNUW-B7gSyCfu.js";import{_ as a}from"./mermaid-DMMmIMW-.js";import"./chunk-5VM5RSS4-CDW2dnhz.js";import"./chunk-XXDRQBXY-Bk5SN-bF.js";import"./chunk-POPQ4Y6H-BCAOr4cm.js";import"./chunk-F27PBJKO-IaL6zU0R.js";import"./channel-B3NNQmO_.js";import"./index-CPzp24UR.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
