import{c as r,s as e}from"./flowDiagram-HODETNUW-4xiCO26z.js";import{_ as a}from"./mermaid-D4MIJdOv.js";import"./chunk-5VM5RSS4-BdJCTDu7.js";import"./chunk-XXDRQBXY-CZgQff1_.js";import"./chunk-POPQ4Y6H-BUxxSKRb.js";import"./chunk-F27PBJKO-D79n91Qy.js";import"./channel-VilWRlDw.js";import"./index-BgFSO6Ts.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
