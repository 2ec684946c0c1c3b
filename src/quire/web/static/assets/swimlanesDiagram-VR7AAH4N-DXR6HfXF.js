import{c as r,s as e}from"./flowDiagram-HODETNUW-DpNGu18f.js";import{_ as a}from"./mermaid-BUkZXm7T.js";import"./chunk-5VM5RSS4-CpyRkHl8.js";import"./chunk-XXDRQBXY-D21Z2iOn.js";import"./chunk-POPQ4Y6H-BMqE2VYj.js";import"./chunk-F27PBJKO-BZ4cbSDc.js";import"./channel-DZa2IcsD.js";import"./index-CTV-IPty.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
