import{c as r,s as e}from"./flowDiagram-HODETNUW-DUizxC8J.js";import{_ as a}from"./mermaid-BjuHiQjI.js";import"./chunk-5VM5RSS4-59gn2IO3.js";import"./chunk-XXDRQBXY-md1d9Dui.js";import"./chunk-POPQ4Y6H-D-Jx8Kn_.js";import"./chunk-F27PBJKO-CPps03eb.js";import"./channel-DgDvQsZP.js";import"./index-C6zeMnL-.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
