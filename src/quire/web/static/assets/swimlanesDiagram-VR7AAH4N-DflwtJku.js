import{c as r,s as e}from"./flowDiagram-HODETNUW-B1cGhEJE.js";import{_ as a}from"./mermaid-DEcPf2nQ.js";import"./chunk-5VM5RSS4-xQuje04x.js";import"./chunk-XXDRQBXY-Dexefa-T.js";import"./chunk-POPQ4Y6H-DNpkf-3o.js";import"./chunk-F27PBJKO-l6dZlYzn.js";import"./channel-D0UlI8L7.js";import"./index-Y13K2gyT.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
