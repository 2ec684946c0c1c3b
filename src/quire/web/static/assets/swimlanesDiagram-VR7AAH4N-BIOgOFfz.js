import{c as r,s as e}from"./flowDiagram-HODETNUW-hF--abpm.js";import{_ as a}from"./mermaid-Em9W3Y8w.js";import"./chunk-5VM5RSS4-B9peFBUH.js";import"./chunk-XXDRQBXY-DYoeHUqW.js";import"./chunk-POPQ4Y6H-CyGep-zT.js";import"./chunk-F27PBJKO-DZ5VneHN.js";import"./channel-D8PRZMW1.js";import"./index-C5sdU14T.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
