import{c as r,s as e}from"./flowDiagram-HODETNUW-qV8MS_VJ.js";import{_ as a}from"./mermaid-BMbn1q8c.js";import"./chunk-5VM5RSS4-CHhcXH3S.js";import"./chunk-XXDRQBXY-jLCAHS9Z.js";import"./chunk-POPQ4Y6H-C3j6L-QO.js";import"./chunk-F27PBJKO-4rTJ9Po6.js";import"./channel-BKSwi52H.js";import"./index-CraVM8SK.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
