import{c as r,s as e}from"./flowDiagram-HODETNUW-DjtvGd_k.js";import{_ as a}from"./mermaid-BddPa_26.js";import"./chunk-5VM5RSS4-VohXVjkc.js";import"./chunk-XXDRQBXY-DptWcmVD.js";import"./chunk-POPQ4Y6H-C6JTJxU4.js";import"./chunk-F27PBJKO-4FWcKbLN.js";import"./channel-xkSnGy6O.js";import"./index-BGtTqifI.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
