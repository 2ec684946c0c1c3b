import{c as r,s as e}from"./flowDiagram-HODETNUW-Dwvb0ZrV.js";import{_ as a}from"./mermaid-DKFXcl2R.js";import"./chunk-5VM5RSS4-Uyptzj0A.js";import"./chunk-XXDRQBXY-COy_Gs5F.js";import"./chunk-POPQ4Y6H-BYiwP88b.js";import"./chunk-F27PBJKO-BoQ5bLXQ.js";import"./channel-BIPIW-p6.js";import"./index-CEE-PfJq.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
