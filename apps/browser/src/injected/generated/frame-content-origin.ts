// Generated from ../entries/frame-content-origin.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/frame-content-origin.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("frame-content-origin", "(...a)=>{var __bfEntry=(()=>{var o=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var p=Object.getOwnPropertyNames;var d=Object.prototype.hasOwnProperty;var m=(t,e)=>{for(var n in e)o(t,n,{get:e[n],enumerable:!0})},c=(t,e,n,i)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let r of p(e))!d.call(t,r)&&r!==n&&o(t,r,{get:()=>e[r],enumerable:!(i=a(e,r))||i.enumerable});return t};var g=t=>c(o({},\"__esModule\",{value:!0}),t);var l={};m(l,{default:()=>u});function u(t){let e=t.getBoundingClientRect(),n=getComputedStyle(t);return{x:e.x+t.clientLeft+(Number.parseFloat(n.paddingLeft)||0),y:e.y+t.clientTop+(Number.parseFloat(n.paddingTop)||0)}}return g(l);})();return __bfEntry.default(...a)}");
