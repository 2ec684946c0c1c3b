import{c as r,s as e}from"./flowDiagram-HODETNUW-OX99HMc2.js";import{_ as a}from"./mermaid-CM-dMGUa.js";import"./chunk-5VM5RSS4-BYa3Avkm.js";import"./chunk-XXDRQBXY-CKK5lp4m.js";import"./chunk-POPQ4Y6H-ClklMP1p.js";import"./chunk-F27PBJKO-D_rWgkYJ.js";import"./channel-CHYz7Di2.js";import"./index-ChBRaAc3.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
