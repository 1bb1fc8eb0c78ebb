// Generated from ../entries/lazy-scroll-where.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/lazy-scroll-where.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("lazy-scroll-where", "(...a)=>{var __bfEntry=(()=>{var r=Object.defineProperty;var m=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var c=Object.prototype.hasOwnProperty;var i=(t,e)=>{for(var n in e)r(t,n,{get:e[n],enumerable:!0})},b=(t,e,n,l)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let o of u(e))!c.call(t,o)&&o!==n&&r(t,o,{get:()=>e[o],enumerable:!(l=m(e,o))||l.enumerable});return t};var g=t=>b(r({},\"__esModule\",{value:!0}),t);var d={};i(d,{default:()=>h});function h(){return{height:document.documentElement.scrollHeight,bottom:scrollY+innerHeight}}return g(d);})();return __bfEntry.default(...a)}");
