import{c as r,s as e}from"./flowDiagram-HODETNUW-DmT29YIG.js";import{_ as a}from"./mermaid-CRVtJv8s.js";import"./chunk-5VM5RSS4-BBREIS81.js";import"./chunk-XXDRQBXY-CnLOd6ws.js";import"./chunk-POPQ4Y6H-CSzEQwtb.js";import"./chunk-F27PBJKO-DDXK3WP0.js";import"./channel-BjsZwjEI.js";import"./index-BdZc0ht5.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
