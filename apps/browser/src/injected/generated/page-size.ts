// Generated from ../entries/page-size.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/page-size.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("page-size", "(...a)=>{var __bfEntry=(()=>{var d=Object.defineProperty;var m=Object.getOwnPropertyDescriptor;var o=Object.getOwnPropertyNames;var c=Object.prototype.hasOwnProperty;var l=(t,e)=>{for(var u in e)d(t,u,{get:e[u],enumerable:!0})},r=(t,e,u,h)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let n of o(e))!c.call(t,n)&&n!==u&&d(t,n,{get:()=>e[n],enumerable:!(h=m(e,n))||h.enumerable});return t};var g=t=>r(d({},\"__esModule\",{value:!0}),t);var a={};l(a,{default:()=>i});function i(){return{width:document.documentElement.scrollWidth,height:document.documentElement.scrollHeight}}return g(a);})();return __bfEntry.default(...a)}");
