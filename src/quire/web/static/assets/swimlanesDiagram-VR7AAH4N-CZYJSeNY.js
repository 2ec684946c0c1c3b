import{c as r,s as e}from"./flowDiagram-HODETNUW-S3V0UQnc.js";import{_ as a}from"./mermaid-yQHOuFg1.js";import"./chunk-5VM5RSS4-ChpS3kzA.js";import"./chunk-XXDRQBXY-DnlLXToE.js";import"./chunk-POPQ4Y6H-tpnAUsAm.js";import"./chunk-F27PBJKO-BVEHXEx8.js";import"./channel-IdeIaVWp.js";import"./index-DXPVuF0J.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
