import{a6 as o,a7 as n}from"./mermaid-I7cF_g1Z.js";const t=(a,r)=>o.lang.round(n.parse(a)[r]);export{t as c};
