import{c as r,s as e}from"./flowDiagram-HODETNUW-BWtLeMhi.js";import{_ as a}from"./mermaid-CS0_hrzd.js";import"./chunk-5VM5RSS4-D1WWhyqY.js";import"./chunk-XXDRQBXY-Cr8kVf4U.js";import"./chunk-POPQ4Y6H-CUDD2I7e.js";import"./chunk-F27PBJKO-Cc--OeLP.js";import"./channel-QMiagcZG.js";import"./index-YUZeHAj_.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
