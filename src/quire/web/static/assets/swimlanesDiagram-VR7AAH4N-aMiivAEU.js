import{c as r,s as e}from"./flowDiagram-HODETNUW-BWu-fji-.js";import{_ as a}from"./mermaid-CjrDXbHd.js";import"./chunk-5VM5RSS4-5h3gp8qP.js";import"./chunk-XXDRQBXY-zCR0lKXq.js";import"./chunk-POPQ4Y6H-uQUnmkPm.js";import"./chunk-F27PBJKO-CJZq5ri2.js";import"./channel-BUKBAoHq.js";import"./index-BJNE-IKp.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
