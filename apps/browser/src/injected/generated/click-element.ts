// Generated from ../entries/click-element.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/click-element.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("click-element", "(...a)=>{var __bfEntry=(()=>{var c=Object.defineProperty;var u=Object.getOwnPropertyDescriptor;var a=Object.getOwnPropertyNames;var i=Object.prototype.hasOwnProperty;var m=(e,t)=>{for(var n in t)c(e,n,{get:t[n],enumerable:!0})},E=(e,t,n,o)=>{if(t&&typeof t==\"object\"||typeof t==\"function\")for(let l of a(t))!i.call(e,l)&&l!==n&&c(e,l,{get:()=>t[l],enumerable:!(o=u(t,l))||o.enumerable});return e};var f=e=>E(c({},\"__esModule\",{value:!0}),e);var k={};m(k,{default:()=>r});function r(e){return e.click(),!0}return f(k);})();return __bfEntry.default(...a)}");
