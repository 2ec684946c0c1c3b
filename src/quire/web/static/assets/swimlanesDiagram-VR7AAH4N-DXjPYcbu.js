import{c as r,s as e}from"./flowDiagram-HODETNUW-C-_fykzU.js";import{_ as a}from"./mermaid-B0zGelAG.js";import"./chunk-5VM5RSS4-DidX4AeI.js";import"./chunk-XXDRQBXY-CpjwhGjs.js";import"./chunk-POPQ4Y6H-DTGEYKTP.js";import"./chunk-F27PBJKO-CHUonIts.js";import"./channel-BM4rFUah.js";import"./index-ZPWCT5Bp.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
