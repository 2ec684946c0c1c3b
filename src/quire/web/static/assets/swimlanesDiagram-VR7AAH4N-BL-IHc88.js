import{c as r,s as e}from"./flowDiagram-HODETNUW-C5O1D_iS.js";import{_ as a}from"./mermaid-Cr_0M6DE.js";import"./chunk-5VM5RSS4-BdfMhyeI.js";import"./chunk-XXDRQBXY-DbSR3aSr.js";import"./chunk-POPQ4Y6H-D4GSgBnr.js";import"./chunk-F27PBJKO-Bjmaru7H.js";import"./channel-CwuuC9Lu.js";import"./index-CyNq9zrw.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
