import{c as r,s as e}from"./flowDiagram-HODETNUW-DVe2Hcp9.js";import{_ as a}from"./mermaid-CPi6m3D6.js";import"./chunk-5VM5RSS4-Q80xr1yW.js";import"./chunk-XXDRQBXY-Dj977ZMo.js";import"./chunk-POPQ4Y6H-BagX1m8Q.js";import"./chunk-F27PBJKO-D6BxGga8.js";import"./channel-oX0DgBaV.js";import"./index-CjOLBH87.js";import"./near-efXlM9AY.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
