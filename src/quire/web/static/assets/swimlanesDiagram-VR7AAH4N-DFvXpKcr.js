import{c as r,s as e}from"./flowDiagram-HODETNUW-BjLRqL02.js";import{_ as a}from"./mermaid-DnHM9Ffi.js";import"./chunk-5VM5RSS4-BwFTOlKk.js";import"./chunk-XXDRQBXY-Olu7sdyb.js";import"./chunk-POPQ4Y6H-DcPYwf6Z.js";import"./chunk-F27PBJKO-ehKhautX.js";import"./channel-DPIif23v.js";import"./index-CbBzbCZj.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
