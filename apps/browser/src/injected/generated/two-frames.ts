// Generated from ../entries/two-frames.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/two-frames.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("two-frames", "(...a)=>{var __bfEntry=(()=>{var t=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var s=Object.getOwnPropertyNames;var u=Object.prototype.hasOwnProperty;var d=(e,r)=>{for(var o in r)t(e,o,{get:r[o],enumerable:!0})},F=(e,r,o,n)=>{if(r&&typeof r==\"object\"||typeof r==\"function\")for(let i of s(r))!u.call(e,i)&&i!==o&&t(e,i,{get:()=>r[i],enumerable:!(n=a(r,i))||n.enumerable});return e};var f=e=>F(t({},\"__esModule\",{value:!0}),e);var q={};d(q,{default:()=>m});function m(){return new Promise(e=>requestAnimationFrame(()=>requestAnimationFrame(()=>e())))}return f(q);})();return __bfEntry.default(...a)}");
