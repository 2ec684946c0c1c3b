import{c as r,s as e}from"./flowDiagram-HODETNUW-BIYJNv4E.js";import{_ as a}from"./mermaid-DmdlOK_c.js";import"./chunk-5VM5RSS4-Cp0Agj9V.js";import"./chunk-XXDRQBXY-C3AWHyMc.js";import"./chunk-POPQ4Y6H-NMLgIXTC.js";import"./chunk-F27PBJKO-Dh6Jmr42.js";import"./channel-Bar4p-Xi.js";import"./index-CSBCmAxX.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
