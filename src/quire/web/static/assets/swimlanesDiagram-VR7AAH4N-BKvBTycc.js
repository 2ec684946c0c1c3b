import{c as r,s as e}from"./flowDiagram-HODETNUW-CRLowprV.js";import{_ as a}from"./mermaid-CkAdVdkP.js";import"./chunk-5VM5RSS4-juRa15qj.js";import"./chunk-XXDRQBXY-DaAfwL-K.js";import"./chunk-POPQ4Y6H-BJ_a6d7J.js";import"./chunk-F27PBJKO-DesgJbjP.js";import"./channel-BmeEmC-_.js";import"./index-B9yWWLJh.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
