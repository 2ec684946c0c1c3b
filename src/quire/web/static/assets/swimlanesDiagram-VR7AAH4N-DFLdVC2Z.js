import{c as r,s as e}from"./flowDiagram-HODETNUW-BxYa8BDN.js";import{_ as a}from"./mermaid-CUdQeOtq.js";import"./chunk-5VM5RSS4-R2t0OUZi.js";import"./chunk-XXDRQBXY-BJrrxEeP.js";import"./chunk-POPQ4Y6H-B417VM5Y.js";import"./chunk-F27PBJKO-KWDbIZlI.js";import"./channel-CMuNZGiz.js";import"./index-C2KmmY2X.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
