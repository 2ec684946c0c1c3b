import{c as r,s as e}from"./flowDiagram-HODETNUW-DyIWNkG0.js";import{_ as a}from"./mermaid-Bdnzp-MM.js";import"./chunk-5VM5RSS4-DthMbwTQ.js";import"./chunk-XXDRQBXY-CsciHm2j.js";import"./chunk-POPQ4Y6H-D-3jw6MR.js";import"./chunk-F27PBJKO-DSMRT1cy.js";import"./channel-BScBQSDD.js";import"./index-U75CiNME.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
