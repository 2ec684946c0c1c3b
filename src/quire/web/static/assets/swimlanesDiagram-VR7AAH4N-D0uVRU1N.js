import{c as r,s as e}from"./flowDiagram-HODETNUW-CR8zZjsR.js";import{_ as a}from"./mermaid-SiNvXd2K.js";import"./chunk-5VM5RSS4-DuRG4Qtx.js";import"./chunk-XXDRQBXY-Czm6npNv.js";import"./chunk-POPQ4Y6H-BqDezVHY.js";import"./chunk-F27PBJKO-BLXaQ-Fr.js";import"./channel-DAWUMxsx.js";import"./index-CtU1qx61.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
