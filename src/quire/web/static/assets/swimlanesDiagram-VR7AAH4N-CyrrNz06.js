import{c as r,s as e}from"./flowDiagram-HODETNUW-BZoRDETw.js";import{_ as a}from"./mermaid-4nF-wBs-.js";import"./chunk-5VM5RSS4-CyG3K8rA.js";import"./chunk-XXDRQBXY-DiNbW9X6.js";import"./chunk-POPQ4Y6H-VhP4_H4q.js";import"./chunk-F27PBJKO-DrrVVbjp.js";import"./channel-6i8hQQ1o.js";import"./index-LbSgNrit.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
