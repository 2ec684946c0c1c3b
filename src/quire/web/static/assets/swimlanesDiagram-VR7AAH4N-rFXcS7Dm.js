import{c as r,s as e}from"./flowDiagram-HODETNUW-FIz4PfNR.js";import{_ as a}from"./mermaid-D5Wz2EiI.js";import"./chunk-5VM5RSS4-CTuhXMyQ.js";import"./chunk-XXDRQBXY-Cn9PEovb.js";import"./chunk-POPQ4Y6H-SEGHLoTy.js";import"./chunk-F27PBJKO-BsQ-_xA8.js";import"./channel-p3fAlWix.js";import"./index-C3VoRmLd.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
